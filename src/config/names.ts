// The names of the systems and products, without the zod schema (the CLI's help needs only these).
/** The upstream products that ship an expectation file. */
export const PRODUCTS = ['vault', 'openbao', 'consul', 'nomad'] as const;
export type ProductName = (typeof PRODUCTS)[number];

export const SYSTEMS = ['secrets', 'mesh', 'scheduler'] as const;
export type SystemName = (typeof SYSTEMS)[number];
