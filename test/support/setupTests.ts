/** Runs before every test file (jest `setupFilesAfterEnv`). */
import { captureWarnings } from './warnings';

captureWarnings();
