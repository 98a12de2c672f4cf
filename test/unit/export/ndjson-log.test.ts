// The export line format: written from the stored text without re-encoding, read back to the same text
// (so its hash verifies), and every malformed line refused with what is wrong.
import { expect } from 'chai';
import { ExportLineError, exportLine, parseExportLine } from '../../../src/infra/export/ndjson-log.js';

const stored = {
  position: 7,
  stream: 'project-3',
  version: 2,
  type: 'story_update',
  data: '{"changes":[{"kind":"story","id":5,"name":"quote \\" and \\n newline"}],"primary_resources":[]}',
  meta: '{"schema":1,"occurred_at":1700000000000,"performed_by":null,"command_id":"c-1"}',
  hash: 'ab'.repeat(32),
};

describe('export lines (NDJSON)', () => {
  it('writes stream, version, type, data, meta and hash, and reads back the stored text', () => {
    const line = exportLine(stored);
    expect(line).to.not.contain('\n');
    expect(Object.keys(JSON.parse(line))).to.deep.equal(['stream', 'version', 'type', 'data', 'meta', 'hash']);
    const { parsedMeta, ...link } = parseExportLine(line);
    const { position: _position, ...expected } = stored;
    expect(link).to.deep.equal(expected);
    expect(parsedMeta).to.include({ command_id: 'c-1' });
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
    ];
    for (const [line, message] of cases) expect(() => parseExportLine(line), line).to.throw(ExportLineError, message);
  });
});
