from a2a.types import DataPart, Part
from a2a.utils import new_data_part

MEDIA = "application/vnd.upperhand.refusal+json"


def seg_mix(detail):
    return {"rule": "seg-mix", "reason": "Segmentation families cannot be crossed; ask for one family per cut.", "code": 422}


def invalid_cut(cut):
    return new_data_part({"rule": "invalid-cut", "detail": cut}, media_type="application/vnd.upperhand.refusals+json")


def unnamed(cut):
    return Part(data={"reason": "That demographic cut is not defined for this study."}, media_type=MEDIA)


def legacy(cut):
    return DataPart(data={"detail": cut}, metadata={"mediaType": MEDIA})
