/** Injection token of the sandbox's SandboxConfig (one object per app; tests may adjust it). */
export const SANDBOX_CONFIG = Symbol('SANDBOX_CONFIG');
