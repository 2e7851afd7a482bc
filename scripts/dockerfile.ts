// The Dockerfile read as stages of one-line instructions (scripts/dockerfile.test.ts and build.test.ts use it).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';

export const dockerfilePath = path.resolve(__dirname, '..', 'Dockerfile');

export interface Stage {
  name: string;
  from: string;
  lines: { keyword: string; args: string }[];
}

export function dockerStages(content = readFileSync(dockerfilePath, 'utf8')): Stage[] {
  const out: Stage[] = [];
  for (const ins of DockerfileParser.parse(content).getInstructions()) {
    const keyword = ins.getKeyword();
    // Line continuations folded, so each instruction reads as one line.
    const args = ins
      .getTextContent()
      .slice(keyword.length)
      .replace(/\\\r?\n\s*/g, ' ')
      .trim();
    if (keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      out.push({ from: m?.[1] ?? '', name: m?.[2] ?? '', lines: [] });
    } else out.at(-1)?.lines.push({ keyword, args });
  }
  return out;
}

/**
 * A target as the image it builds: the instructions of the stages it is built FROM, base first, then its own (a
 * later HEALTHCHECK or CMD replaces an earlier one, as in Docker). `from` is the outermost base (an image).
 */
export function imageOf(target: string, stages = dockerStages()): Stage {
  const byName = new Map(stages.map((s) => [s.name, s]));
  let stage = byName.get(target);
  if (!stage) throw new Error(`the Dockerfile has no target ${target}`);
  const lines = [...stage.lines];
  for (let base = byName.get(stage.from); base; base = byName.get(base.from)) {
    lines.unshift(...base.lines);
    stage = base;
  }
  return { name: target, from: stage.from, lines };
}

/** The arguments of every `keyword` instruction of a stage. */
export function only(stage: Stage, keyword: string): string[] {
  return stage.lines.filter((l) => l.keyword === keyword).map((l) => l.args);
}

/** A stage's HEALTHCHECK command line (exec form, the last one), e.g. ['node', '-e', '...']. */
export function healthcheckArgv(stage: Stage): string[] | undefined {
  const check = only(stage, 'HEALTHCHECK').at(-1);
  const json = check ? /\bCMD\s+(\[.*\])$/.exec(check)?.[1] : undefined;
  return json ? (JSON.parse(json) as string[]) : undefined;
}
