#!/usr/bin/env node
// The `blur` command.
import { launch } from '../../launch.mjs';

await launch('blur', new URL('../src/cli.ts', import.meta.url));
