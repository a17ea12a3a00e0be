import { hash, verify } from '@node-rs/argon2';

// argon2id with the library's defaults (OWASP-recommended memory and time costs).
export const hashPassword = (password: string): Promise<string> => hash(password);

/** True when `password` matches the stored hash; false for a wrong password or an unusable hash. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
