import { AppError } from '../../platform/http/errors.ts';

/** The password policy (PASSWORD_POLICY.md, beside this file). Every place that sets a password calls checkPassword. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

export type PasswordRule = 'min_length' | 'max_length' | 'contains_username' | 'contains_email' | 'common_password' | 'repeated_character' | 'sequence';

/**
 * Very common passwords long enough to pass the length rule (from public breach-corpus top lists).
 * Compared case-insensitively with the whole password.
 */
const COMMON_PASSWORDS = new Set([
  'password1234', 'password12345', 'password123456', 'password1234567', 'password12345678', 'password123!',
  'password1234!', 'passwordpassword', 'password!123', 'p@ssw0rd1234', 'p@ssword1234', 'passw0rd1234',
  'qwertyuiop123', 'qwertyuiopasdf', 'qwertyuiopasdfgh', 'qwerty123456', 'qwerty1234567', 'qwerty12345678',
  '1qaz2wsx3edc', '1q2w3e4r5t6y', '1q2w3e4r5t6y7u', 'q1w2e3r4t5y6', 'zaq12wsxcde3', 'zaq1zaq1zaq1',
  'asdfghjkl123', 'asdfghjkl1234', 'iloveyou1234', 'iloveyou123456', 'letmein12345', 'letmein123456',
  'welcome12345', 'welcome123456', 'welcome@1234', 'administrator', 'administrator1', 'admin1234567',
  'admin12345678', 'adminadmin123', 'changeme1234', 'changeme123!', 'trustno11234', 'sunshine1234',
  'football1234', 'baseball1234', 'superman1234', 'princess1234', 'monkey123456', 'dragon123456',
  'starwars1234', 'whatever1234', 'abc123456789', 'abcd12345678', 'a1b2c3d4e5f6', '123qweasdzxc',
  '123456qwerty', '1234qwerasdf', 'qazwsxedcrfv', 'michael12345', 'jennifer1234', 'correcthorsebatterystaple',
  'summer2024!!', 'winter2024!!', 'spring2024!!', 'autumn2024!!', 'summer123456', 'computer1234',
  'internet1234', 'secret123456', 'mypassword123', 'mypassword1234', 'thisismypassword', 'passwordqwerty',
  '000000000000', '111111111111', '123123123123', '123321123321', '112233445566', '121212121212',
  '123456654321', '147258369147', '159357159357', '987654321987',
]);

/** One violation of the policy, or undefined when the password complies. */
export function passwordViolation(password: string, owner: { username?: string | null; email?: string | null }): { rule: PasswordRule; message: string } | undefined {
  const chars = [...password];
  if (chars.length < PASSWORD_MIN_LENGTH) return { rule: 'min_length', message: `must be at least ${PASSWORD_MIN_LENGTH} characters long` };
  if (chars.length > PASSWORD_MAX_LENGTH) return { rule: 'max_length', message: `must be at most ${PASSWORD_MAX_LENGTH} characters long` };
  const lower = password.toLowerCase();
  const username = owner.username?.trim().toLowerCase();
  if (username && username.length >= 3 && lower.includes(username)) {
    return { rule: 'contains_username', message: 'must not contain the username' };
  }
  const local = owner.email?.trim().toLowerCase().split('@')[0];
  if (local && local.length >= 3 && lower.includes(local)) {
    return { rule: 'contains_email', message: 'must not contain the local part of the e-mail address' };
  }
  if (COMMON_PASSWORDS.has(lower)) return { rule: 'common_password', message: 'is one of the most common passwords' };
  if (chars.every((c) => c === chars[0])) return { rule: 'repeated_character', message: 'must not be a single repeated character' };
  if (isSequence([...lower])) return { rule: 'sequence', message: 'must not be a plain ascending or descending sequence (like abcdef… or 987654…)' };
  return undefined;
}

/** Throws 400 VALIDATION_ERROR naming the rule (details[0].rule) when the password breaks the policy. */
export function checkPassword(password: string, owner: { username?: string | null; email?: string | null }, path = 'body.password'): void {
  const v = passwordViolation(password, owner);
  if (v) throw new AppError('VALIDATION_ERROR', `${path}: ${v.message} (password rule '${v.rule}')`, [{ path, message: v.message, rule: v.rule }]);
}

/** Digits wrap around (…8, 9, 0, 1…), so 1234567890 counts as a sequence too. */
function step(a: string, b: string): number | undefined {
  const da = a.codePointAt(0)!;
  const db = b.codePointAt(0)!;
  if (/\d/.test(a) && /\d/.test(b)) {
    const d = (db - da + 10) % 10;
    return d === 1 ? 1 : d === 9 ? -1 : undefined;
  }
  const d = db - da;
  return d === 1 || d === -1 ? d : undefined;
}

function isSequence(chars: string[]): boolean {
  const first = step(chars[0]!, chars[1]!);
  if (first === undefined) return false;
  for (let i = 2; i < chars.length; i++) if (step(chars[i - 1]!, chars[i]!) !== first) return false;
  return true;
}
