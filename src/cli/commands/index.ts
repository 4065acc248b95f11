// The command list; the first entry is the default command.
import type { Command } from '../command.js';
import { doctorCommand } from './doctor.js';
import { envCommand } from './env.js';
import { planCommand } from './plan.js';
import { probeCommand } from './probe.js';
import { setupCommand } from './setup.js';
import { smokeCommand } from './smoke.js';

export const commands: Command[] = [setupCommand, planCommand, envCommand, probeCommand, smokeCommand, doctorCommand];
