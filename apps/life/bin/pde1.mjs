#!/usr/bin/env node
// The `pde1` command.
import { launch } from '../../launch.mjs';

await launch('pde1', new URL('../src/pde1.ts', import.meta.url));
