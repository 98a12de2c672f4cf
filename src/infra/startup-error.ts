// A reason Storyline refuses to start (or a CLI command refuses to run) that the operator can act on:
// the CLI prints its message as one line and exits non-zero, without a stack.
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
