/**
 * undici, loaded on first use. It is the largest single package a start would load (4–7 % of a later start's CPU,
 * measured with --cpu-prof; ~100 ms on a 2-CPU machine), and a process answers its first requests long before it
 * calls anyone.
 */
import type * as undici from 'undici';

export type Undici = typeof undici;

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici');
  return loading;
}
