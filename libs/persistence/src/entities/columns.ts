/** numeric(15,2) comes back from pg as a string; keep it a string so no float ever holds money. */
export const AMOUNT_COLUMN = { type: 'numeric' as const, precision: 15, scale: 2 };

/** Timestamps are timestamptz everywhere: instants, never wall-clock times. */
export const INSTANT = 'timestamptz' as const;
