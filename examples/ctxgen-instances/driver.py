# The Python driver of ctxgen-instances: driver.py <src dir> <package> <cases> <start>.
import importlib
import json
import sys

sys.path.insert(0, sys.argv[1])
api = importlib.import_module(sys.argv[2])
OWN = getattr(api, "ValidationError", None)
from pydantic import BaseModel  # noqa: E402


def dump(value):
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_unset=True, mode="json")
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [dump(v) for v in value]
    return value


def kind(e):
    if OWN is not None and isinstance(e, OWN):
        return "rejected"
    t = type(e)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def case(line):
    c = json.loads(line)
    stem = c["python"]
    validate = getattr(api, "validate_" + stem, None)
    parse = getattr(api, "parse_" + stem, None)
    if validate is None:
        return {"e": "no function validate_" + stem}
    out = {"v": [[v.pointer, v.keyword] for v in validate(c["data"])]}
    if not out["v"]:
        try:
            if parse is None:
                raise LookupError("no function parse_" + stem)
            value = parse(c["data"])
            dumper = getattr(api, "dump_" + stem, None)
            back = dumper(value) if callable(dumper) else dump(value)
            out["rt"] = json.loads(json.dumps(back, allow_nan=False))
        except Exception as e:
            out["rte"] = [kind(e), str(e)[:500]]
    return out


start = int(sys.argv[4])
with open(sys.argv[3], encoding="utf-8") as f:
    for i, line in enumerate(f):
        if i < start:
            continue
        try:
            out = case(line)
        except Exception as e:
            out = {"e": f"{type(e).__name__}: {str(e)[:500]}"}
        out["i"] = i
        print(json.dumps(out), flush=True)
