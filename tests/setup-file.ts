import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp.js';

// Runs in every test file before its own code: registered first, this hook runs after the file's own afterAll.
afterAll(() => removeTempDirs());
