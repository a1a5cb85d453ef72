#!/usr/bin/env node
// The `vcycle` command.
import { launch } from '../../launch.mjs';

await launch('vcycle', new URL('../src/cli.ts', import.meta.url));
