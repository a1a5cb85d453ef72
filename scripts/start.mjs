// `npm start`: builds every sample program in datasets/samples with the Impala compiler,
// runs each one and says where the executables went.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const { buildProgram } = await import('../compiler/src/driver/build.ts');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const samplesDir = path.join(root, 'datasets', 'samples');
const outDir = path.join(root, 'out', 'samples');
mkdirSync(outDir, { recursive: true });

const relative = (p) => path.relative(process.cwd(), p) || '.';
const samples = readdirSync(samplesDir).filter((f) => f.endsWith('.impala')).sort();
let failures = 0;

for (const file of samples) {
  const source = path.join(samplesDir, file);
  const exe = path.join(outDir, path.basename(file, '.impala'));
  console.log(`\n== ${relative(source)}`);
  const started = Date.now();
  const result = await buildProgram([{ path: relative(source), text: readFileSync(source, 'utf8') }], { kind: 'exe', output: exe, optLevel: 2 });
  if (!result.ok) {
    console.log(`build failed:\n${result.rendered}`);
    failures++;
    continue;
  }
  console.log(`built ${relative(exe)} in ${Date.now() - started} ms; running it:\n`);
  const ran = spawnSync(exe, [], { stdio: 'inherit' });
  if (ran.status !== 0) {
    console.log(`\n${relative(exe)} ${ran.signal ? `was killed by ${ran.signal}` : `exited with ${ran.status}`}`);
    failures++;
  }
}

console.log(`\n${samples.length - failures} of ${samples.length} samples built and ran; executables are in ${relative(outDir)}/`);
process.exitCode = failures === 0 ? 0 : 1;
