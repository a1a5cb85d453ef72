#!/usr/bin/env node
// The `harris` command.
import { launch } from '../../launch.mjs';

await launch('harris', new URL('../src/cli.ts', import.meta.url));
