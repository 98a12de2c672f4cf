// The export line format: written from the stored text without re-encoding, read back to the same text
// (so its hash verifies), and every malformed line refused with what is wrong; the trailer line written
// from a summary and read back as one.
import { expect } from 'chai';
import { ExportLineError, ExportTrailer, exportLine, parseExportLine, trailerLine, type ExportedEvent } from '../../../src/infra/export/ndjson-log.js';

const stored = {
  position: 7,
  stream: 'project-3',
  version: 2,
  type: 'story_update',
  data: '{"changes":[{"kind":"story","id":5,"name":"quote \\" and \\n newline"}],"primary_resources":[]}',
  meta: '{"schema":1,"occurred_at":1700000000000,"performed_by":null,"command_id":"c-1"}',
  hash: 'ab'.repeat(32),
};

/** The event a line holds (the test fails on a trailer). */
function eventOf(line: string): ExportedEvent {
  const parsed = parseExportLine(line);
  if (parsed instanceof ExportTrailer) throw new Error(`a trailer: ${line}`);
  return parsed;
}

describe('export lines (NDJSON)', () => {
  it('writes stream, version, type, data, meta and hash, and reads back the stored text', () => {
    const line = exportLine(stored);
    expect(line).to.not.contain('\n');
    expect(Object.keys(JSON.parse(line))).to.deep.equal(['stream', 'version', 'type', 'data', 'meta', 'hash']);
    const { commandId, canonical, ...link } = eventOf(line);
    const { position: _position, ...expected } = stored;
    expect(link).to.deep.equal(expected);
    expect(commandId).to.equal('c-1');
    expect(canonical()).to.deep.equal({ data: stored.data, meta: stored.meta });
  });

  it('keeps the text of data and meta of an export line as it is, and reads any other layout of the same object', () => {
    const respaced = exportLine({ ...stored, data: '{"changes": [ ], "note":"1e2"}' });
    const kept = eventOf(respaced);
    expect(kept.data).to.equal('{"changes": [ ], "note":"1e2"}');
    expect(kept.canonical().data).to.equal('{"changes":[],"note":"1e2"}');
    const reordered = JSON.stringify({ hash: stored.hash, meta: JSON.parse(stored.meta), data: { b: 1, a: [2] }, type: stored.type, version: 2, stream: 'project-3' });
    expect(parseExportLine(reordered)).to.include({ stream: 'project-3', version: 2, data: '{"b":1,"a":[2]}', meta: stored.meta, commandId: 'c-1' });
    // keys named like the line's own inside data and meta do not confuse the cut
    const nestedData = JSON.stringify({ meta: { hash: 1 }, x: ',"meta":' });
    const nestedMeta = '{"command_id":"c-2","y":{"meta":2,"hash":"z"}}';
    expect(parseExportLine(exportLine({ ...stored, data: nestedData, meta: nestedMeta }))).to.include({ data: nestedData, meta: nestedMeta });
  });

  it('refuses what is not an exported event, saying what is wrong', () => {
    const valid = JSON.parse(exportLine(stored)) as Record<string, unknown>;
    const cases: [string, RegExp][] = [
      ['{"stream":', /not JSON/],
      ['[1,2]', /not a JSON object/],
      [JSON.stringify({ ...valid, stream: '' }), /"stream"/],
      [JSON.stringify({ ...valid, version: 0 }), /"version"/],
      [JSON.stringify({ ...valid, type: 3 }), /"type"/],
      [JSON.stringify({ ...valid, data: [] }), /"data"/],
      [JSON.stringify({ ...valid, meta: { schema: 1 } }), /command_id/],
      [JSON.stringify({ ...valid, hash: null }), /"hash"/],
      [JSON.stringify({ ...valid, position: 7 }), /unknown key "position"/],
      [exportLine({ ...stored, data: '{"a":1},"extra":{}' }), /unknown key "extra"/],
      [exportLine({ ...stored, data: '{"a":}' }), /not JSON/],
      [exportLine({ ...stored, data: '"text"' }), /"data"/],
      [exportLine({ ...stored, version: 0 }), /"version"/],
    ];
    for (const [line, message] of cases) expect(() => parseExportLine(line), line).to.throw(ExportLineError, message);
  });

  it('writes the trailer from a summary and reads it back, in any layout; a malformed one is refused', () => {
    const summary = { events: 3, sequence_hash: 'cd'.repeat(32), streams: [{ stream: 'project-3', version: 3, head_hash: stored.hash }] };
    const line = trailerLine(summary);
    expect(JSON.parse(line)).to.deep.equal({ trailer: true, ...summary });
    expect(parseExportLine(line)).to.deep.equal(new ExportTrailer(summary));
    const reordered = JSON.stringify({ streams: summary.streams, events: 3, trailer: true, sequence_hash: summary.sequence_hash }, null, 1).replaceAll('\n', ' ');
    expect(parseExportLine(reordered)).to.deep.equal(new ExportTrailer(summary));
    const cases: [unknown, RegExp][] = [
      [{ trailer: true, events: 3, streams: summary.streams }, /"sequence_hash"/],
      [{ trailer: false, ...summary }, /the trailer must be/],
      [{ trailer: true, ...summary, extra: 1 }, /unknown key "extra" in the trailer/],
      [{ trailer: true, ...summary, events: -1 }, /"events"/],
      [{ trailer: true, ...summary, streams: [{ stream: 'project-3', version: 0, head_hash: 'x' }] }, /"streams"\[0\]/],
      [{ trailer: true, ...summary, streams: [...summary.streams, ...summary.streams] }, /names project-3 twice/],
    ];
    for (const [value, message] of cases) expect(() => parseExportLine(JSON.stringify(value)), JSON.stringify(value)).to.throw(ExportLineError, message);
  });
});
