#!/usr/bin/env node
import '../dist/src/infra/cli/main.js';
