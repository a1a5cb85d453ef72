#!/usr/bin/env node
// The `impala` command.
import { launch } from '../../launch.mjs';

await launch('impala', new URL('../../../compiler/src/driver/cli.ts', import.meta.url), 'internal compiler error');
