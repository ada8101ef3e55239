// A user's program against the installed npm package: types, validation, the error type.
import {
  ValidationError,
  isMessageEnvelope,
  parseMessageEnvelope,
  validateMessageEnvelope,
  type MessageEnvelope,
  type Violation,
} from "context-protocols";

const good: unknown = JSON.parse(
  '{"context": "reason-789/security", "kind": "reflection", "payload": {}}',
);
const envelope: MessageEnvelope = parseMessageEnvelope(good);
const context: string | undefined = envelope.context;

const bad: unknown = { context: "/a", kind: "reflection", payload: {} };
const violations: Violation[] = validateMessageEnvelope(bad);
let thrown = false;
try {
  parseMessageEnvelope(bad);
} catch (e) {
  thrown = e instanceof ValidationError;
}
if (!isMessageEnvelope(good) || isMessageEnvelope(bad) || !thrown) {
  throw new Error("the package did not validate as expected");
}
console.log(
  JSON.stringify({
    context,
    violations: violations.map((v) => [v.pointer, v.keyword]),
  }),
);
