from survey.policy import refuse


def guard(cut):
<<<<<<< HEAD
    return refuse("invalid-cut", detail=cut)
=======
    return refuse("invalid-cut", detail=f"{cut} unknown")
>>>>>>> feature
