import type { Fault } from './types.ts';

export const secretsFaults: Fault[] = [
  {
    id: 'secrets.list-empty-200',
    system: 'secrets',
    breaks: ['secrets.core.list-empty-404'],
    description: 'An empty LIST answers 200 with {"data":{"keys":[]}} instead of 404 {"errors":[]}',
  },
  {
    id: 'secrets.list-verb-405',
    system: 'secrets',
    breaks: ['secrets.core.list-empty-404'],
    description: 'The LIST verb is refused with 405 (as a stock HTTP framework would); only GET ?list=true lists',
  },
];
