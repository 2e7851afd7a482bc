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

/** The arguments of every `keyword` instruction of a stage. */
export function only(stage: Stage, keyword: string): string[] {
  return stage.lines.filter((l) => l.keyword === keyword).map((l) => l.args);
}

/** A target's HEALTHCHECK command line (exec form), e.g. ['node', '-e', '...']. */
export function healthcheckArgv(stage: Stage): string[] | undefined {
  const check = only(stage, 'HEALTHCHECK')[0];
  const json = check ? /\bCMD\s+(\[.*\])$/.exec(check)?.[1] : undefined;
  return json ? (JSON.parse(json) as string[]) : undefined;
}
