// `storyline import` into an event store reached through its port (KurrentDB): the export's events
// appended as their commands first appended them, so that each gets back its id, version, hash and
// global order. An import target is given the file's events in order; this one gathers each command's
// run (consecutive events of one stream with one command id, as the import reader numbers their ids)
// and appends it at the version before its first event.
//
// A store reached through a port cannot be emptied again by the import, so `storyline import` reads the
// file twice: once with `portImportCheck` (which writes nothing: chain, trailer, and that every event
// can be stored through the port as it was), then with `portImportTarget`, which writes. The adapter
// hashes the JSON it writes, so an event whose stored text is not what JSON.stringify writes could not
// keep its hash: the check refuses such a file before anything is written.
import type { EventType, NewEvent } from '../../domain/events.js';
import type { EventStore } from '../../ports/event-store.js';
import type { ImportTarget } from './log-import.js';
import type { ReadEvent } from './packed-event-batch.js';

/** The problem of an event the port could not store as the file holds it, or null. */
export function portStorageProblem(event: ReadEvent): string | null {
  for (const [name, text] of [['data', event.data], ['meta', event.meta]] as const) {
    if (JSON.stringify(JSON.parse(text)) !== text) {
      return `line ${event.line}: its ${name} is not stored as JSON.stringify writes it, so an event store behind the port would store other text and the event would lose its hash`;
    }
  }
  return null;
}

/** The first pass: refuses (writing nothing) a file with an event the port could not store as it was. */
export function portImportCheck(): ImportTarget {
  let problem: string | null = null;
  return {
    append(events) {
      for (const event of events) problem ??= portStorageProblem(event);
    },
    finish: () => problem,
  };
}

/** The second pass: every event appended through `store`, one append per command, in the file's order. */
export function portImportTarget(store: EventStore): ImportTarget {
  let run: { stream: string; commandId: string; firstVersion: number; events: NewEvent[] } | null = null;

  async function flush(): Promise<void> {
    if (!run) return;
    const { stream, firstVersion, events } = run;
    run = null;
    const result = await store.append(stream, firstVersion - 1, events);
    const last = firstVersion + events.length - 1;
    if (result.version !== last) {
      throw new Error(`${stream}: the store answered version ${result.version} for the events up to version ${last} (an event id was already in the store)`);
    }
  }

  return {
    async append(events) {
      for (const event of events) {
        const meta = JSON.parse(event.meta) as NewEvent['meta'];
        const newEvent: NewEvent = { type: event.type as EventType, data: JSON.parse(event.data) as NewEvent['data'], meta };
        if (run && run.stream === event.stream && run.commandId === meta.command_id) {
          run.events.push(newEvent);
          continue;
        }
        await flush();
        run = { stream: event.stream, commandId: meta.command_id, firstVersion: event.version, events: [newEvent] };
      }
    },
    async finish() {
      await flush();
      return null;
    },
  };
}
