#!/usr/bin/env node
// The `trace` command.
import { launch } from '../../launch.mjs';

await launch('trace', new URL('../src/main.ts', import.meta.url));
