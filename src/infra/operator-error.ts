// A reason Storyline refuses to start, or a CLI command refuses to run, that the operator can act on (a
// lost store, a taken port, an unknown email): the CLI prints its message as one line and exits 1,
// without a stack.
export class OperatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorError';
  }
}
