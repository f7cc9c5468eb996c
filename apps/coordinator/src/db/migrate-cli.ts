import { loadConfig } from '@crawler/domain/config';
import { migrate } from './migrate';

const config = loadConfig();
const applied = await migrate(config.DATABASE_URL);
for (const m of applied) console.log(`${m.applied ? 'applied' : 'up to date'}  ${m.name}`);
