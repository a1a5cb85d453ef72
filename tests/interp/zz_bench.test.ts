import { World } from '/work/main/compiler/src/ir/index.ts';
import { interpret } from '/work/main/compiler/src/interp/index.ts';
const w = new World(); const i32 = w.prim('i32'); const mem = w.mem;
const sum = w.continuation(w.fnType([mem, i32, w.fnType([mem, i32])]), 'sum');
const head = w.continuation(w.fnType([mem, i32, i32]), 'head');
const body = w.continuation(w.fnType([mem]), 'body');
const exit = w.continuation(w.fnType([mem]), 'exit');
sum.jump(head, [sum.param(0), w.litI32(0), w.litI32(0)]);
w.branch(head, head.param(0), w.cmp('lt', head.param(1), sum.param(1)), body, exit);
body.jump(head, [body.param(0), w.arith('add', head.param(1), w.litI32(1)), w.arith('add', head.param(2), head.param(1))]);
exit.jump(sum.param(2), [exit.param(0), head.param(2)]);
import { it } from 'vitest';
it('bench', () => {
const t = process.cpuUsage().user;
const r = interpret(w, sum, [1000000n]);
console.log(r.result, r.steps, ((process.cpuUsage().user - t) / 1000).toFixed(0), "cpu ms"); });
