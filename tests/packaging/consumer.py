"""A user's program against the installed wheel: types, validation, the error type."""

from context_protocols import (
    MessageEnvelope,
    ValidationError,
    Violation,
    parse_message_envelope,
    validate_message_envelope,
)

good = {"context": "reason-789/security", "kind": "reflection", "payload": {}}
envelope: MessageEnvelope = parse_message_envelope(good)
context: str | None = envelope.context

bad = {"context": "/a", "kind": "reflection", "payload": {}}
violations: list[Violation] = validate_message_envelope(bad)
try:
    parse_message_envelope(bad)
    thrown = False
except ValidationError as e:
    thrown = len(e.violations) == len(violations)
assert thrown, "parse did not raise the package's ValidationError"
print(context, [(v.pointer, v.keyword) for v in violations])
