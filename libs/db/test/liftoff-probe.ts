// A child process for client.test.ts: sets the process's WebAssembly flags as createPrisma does, runs a small
// WebAssembly function hot, and prints which tier V8 left it on (natives syntax, parsed at run time by V8).
import { compileWebAssemblyWithLiftoffOnly } from '../src/client';

if (process.argv[2] !== 'untouched') compileWebAssemblyWithLiftoffOnly();
// (module (func (export "f") (param i32) (result i32) local.get 0 i32.const 1 i32.add))
const bytes = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 127, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 9, 1, 7, 0,
  32, 0, 65, 1, 106, 11,
]);
const f = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f as (x: number) => number;
const tier = new Function(
  'f',
  'return %IsTurboFanFunction(f) ? "turbofan" : %IsLiftoffFunction(f) ? "liftoff" : "other"',
);
let x = 0;
const spin = () => {
  for (let i = 0; i < 2_000_000; i++) x = f(x) & 0xffff;
};
// Tier-up runs on a background thread, so the probe spins and looks again: the untouched control until TurboFan
// shows (bounded), the flagged run for ten rounds, each longer than the control needs on a quiet machine.
const rounds = process.argv[2] === 'untouched' ? 200 : 10;
async function settledTier(): Promise<string> {
  let seen = 'other';
  for (let round = 0; round < rounds && seen !== 'turbofan'; round++) {
    spin();
    seen = tier(f);
    await new Promise((r) => setTimeout(r, 100));
  }
  return seen;
}
void settledTier().then((seen) => process.stdout.write(seen));
