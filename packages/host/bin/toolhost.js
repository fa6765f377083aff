#!/usr/bin/env node
// The `toolhost` bin. A committed file, so npm links it even when `dist/` does not exist yet at
// install time (a fresh clone builds in `prepare`, after bins are linked).
import '../dist/cli/main.js';
