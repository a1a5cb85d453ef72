// One cold compile of one image kernel, in a process of its own (run.ts starts it): the
// first run of an app with an empty cache, JIT warm-up included. Prints one JSON line:
// the time from the process start to the compiler being loaded, the time per stage
// (compile()'s timePasses) and the compile() call as a whole.
//
//   ANYDSL_CACHE=/tmp/empty npx tsx bench/compile/cold.ts gauss5 opt clamp u8 3
import { compile } from '@anydsl/compiler';
import { librarySources } from '../../libs/image/host.ts';
import { checkVariant, entryFunction, type Variant } from '../../libs/image/variants.ts';

const loaded = performance.now();
const [pipeline, schedule, boundary, type, channels] = process.argv.slice(2);
const variant = { pipeline, schedule, boundary, type, channels: Number(channels) } as Variant;
checkVariant(variant);
const sources = [...librarySources(), { path: 'image_entry.impala', text: `${entryFunction(variant)}\n` }];
const start = performance.now();
const library = await compile({ sources, options: { optLevel: 3, timePasses: true } });
const ms = performance.now() - start;
if (library.cached) throw new Error('the kernel came from the cache: the benchmark needs an empty cache');
process.stdout.write(`${JSON.stringify({ startup: loaded, compile: ms, stages: library.timings })}\n`);
