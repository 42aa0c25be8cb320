// A request whose bytes do not follow its message definition (truncated, a negative or
// overlong length, a null where the version allows none, an unreadable varint). The gateway
// answers it with Kafka's error when it can still read the header, else closes the connection.
export class MalformedRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedRequestError';
  }
}
