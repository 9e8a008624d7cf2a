def guard(cut)
    return refuse('invalid-cut', detail=cut)
