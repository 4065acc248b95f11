// The command list; the first entry is the default command.
import type { Command } from '../command.js';
import { bundleCommand } from './bundle.js';
import { doctorCommand } from './doctor.js';
import { envCommand } from './env.js';
import { lockCommand } from './lock.js';
import { planCommand } from './plan.js';
import { probeCommand } from './probe.js';
import { setupCommand } from './setup.js';
import { smokeCommand } from './smoke.js';

export const commands: Command[] = [setupCommand, planCommand, lockCommand, bundleCommand, envCommand, probeCommand, smokeCommand, doctorCommand];
