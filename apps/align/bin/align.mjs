#!/usr/bin/env node
// The `align` command.
import { launch } from '../../launch.mjs';

await launch('align', new URL('../src/cli.ts', import.meta.url));
