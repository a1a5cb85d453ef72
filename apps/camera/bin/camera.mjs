#!/usr/bin/env node
// The `camera` command.
import { launch } from '../../launch.mjs';

await launch('camera', new URL('../src/cli.ts', import.meta.url));
