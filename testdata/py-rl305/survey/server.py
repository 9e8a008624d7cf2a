from a2a.utils.errors import ServerError
from a2a.types import InvalidParamsError
from fastapi import HTTPException

from survey.rules import RULES


def check_cut(cut, families, req_id):
    if len(families) > 1:
        raise ServerError(error=InvalidParamsError(message="refused", data={"rule": "seg-mix", "reason": RULES["seg-mix"]}))
    if cut == "zodiac":
        raise HTTPException(status_code=422, detail=RULES["invalid-cut"])
    if cut not in ("age", "region"):
        return {"jsonrpc": "2.0", "id": req_id, "error": {"code": -32602, "message": RULES["invalid-cut"]}}
    return None
