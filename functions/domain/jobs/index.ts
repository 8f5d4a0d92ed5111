/** The jobs area's public entry: the other areas and the functions import it from here. */
export * from './code-export-job';
export * from './code-generation-job';
export * from './code-revocation-job';
export * from './code-walk';
export * from './event-deletion-job';
export * from './event-deletion';
export * from './export-files';
export * from './job-kind';
export * from './job-kinds';
export * from './job-queue';
export * from './job-runner';
export * from './job-store';
export * from './job-worker-settings';
export * from './jobs';
export * from './step-work';
export * from './code-jobs';
export * from './job-inputs';
