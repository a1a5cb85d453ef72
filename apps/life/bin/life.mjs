#!/usr/bin/env node
// The `life` command.
import { launch } from '../../launch.mjs';

await launch('life', new URL('../src/life.ts', import.meta.url));
