// `storyline person reset-token`: a new API token for a person, found by email; the old token is refused
// at once, by a server running beside the command too (it notices the credentials file changed).
import { createLog } from '../log.js';
import { OperatorError } from '../operator-error.js';
import { CliUsageError, parseCommandArgs, type CliCommand } from './command.js';

export const personResetTokenCommand: CliCommand = {
  words: ['person', 'reset-token'],
  usage: 'person reset-token --email E',
  summary: 'revoke the person\'s API token and print the new one as {"id":..,"api_token":..}',
  async run(args, { config, out }) {
    const { values } = parseCommandArgs({ args, options: { email: { type: 'string' } }, strict: true });
    if (!values.email) throw new CliUsageError('person reset-token needs --email');
    const { openStoryline } = await import('../composition.js');
    const storyline = await openStoryline(config, createLog('warn'));
    try {
      const person = await storyline.deps.people.byEmail(values.email);
      if (!person) throw new OperatorError(`nobody with the email ${values.email} in ${config.dataDir}`);
      const id = Number(person['id']);
      out(JSON.stringify({ id, api_token: await storyline.deps.secrets.rotateToken(id) }));
      return 0;
    } finally {
      await storyline.close();
    }
  },
};
