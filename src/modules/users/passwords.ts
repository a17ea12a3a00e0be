import { hash } from '@node-rs/argon2';

// argon2id with the library's defaults (OWASP-recommended memory and time costs).
export const hashPassword = (password: string): Promise<string> => hash(password);
