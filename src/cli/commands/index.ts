// The command list; the first entry is the default command.
import type { Command } from '../command.js';
import { envCommand } from './env.js';
import { planCommand } from './plan.js';
import { setupCommand } from './setup.js';

export const commands: Command[] = [setupCommand, planCommand, envCommand];
