// `storyline person add`: a person who can sign in, added beside a running server or on its own.
import { createLog } from '../log.js';
import { CliUsageError, parseCommandArgs, type CliCommand } from './command.js';

export const personAddCommand: CliCommand = {
  words: ['person', 'add'],
  usage: 'person add --email E --name N --password P [--initials I] [--username U]',
  summary: 'add a person; prints {"id":..,"api_token":..} as one JSON line',
  async run(args, { config, out }) {
    const { values } = parseCommandArgs({
      args,
      options: {
        email: { type: 'string' },
        name: { type: 'string' },
        password: { type: 'string' },
        initials: { type: 'string' },
        username: { type: 'string' },
      },
      strict: true,
    });
    if (!values.email || !values.name || !values.password) throw new CliUsageError('person add needs --email, --name and --password');
    const { openStoryline } = await import('../composition.js');
    const storyline = await openStoryline(config, createLog('warn'));
    try {
      const person = await storyline.addPerson({
        email: values.email,
        name: values.name,
        password: values.password,
        initials: values.initials,
        username: values.username,
      });
      out(JSON.stringify(person));
      return 0;
    } finally {
      await storyline.close();
    }
  },
};
