/** A refusal or a failure of an operations command the operator can act on: the CLI prints the message alone. */
export class OpsError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
    this.name = 'OpsError';
  }
}
