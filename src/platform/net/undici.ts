/**
 * undici, loaded on first use. Its modules are the largest single package a start would load (~10 % of its CPU,
 * measured with --cpu-prof), and a process answers its first requests long before it calls anyone.
 */
import type * as undici from 'undici';

export type Undici = typeof undici;

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici');
  return loading;
}
