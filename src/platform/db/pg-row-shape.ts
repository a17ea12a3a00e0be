import type pg from 'pg';

/** What pg's Result keeps per result set (not in its published types). */
interface ResultInternals {
  fields: pg.FieldDef[];
  _parsers: ((text: string) => unknown)[] | undefined;
  _types: { getTypeParser(oid: number, format: string): (text: string) => unknown } | undefined;
  _prebuiltEmptyResultObject: Record<string, null>;
}

/**
 * Replaces pg's `Result.prototype.addFields`, which runs for every query's RowDescription (every execution
 * of a prepared statement too). pg builds the empty row that each row of the result is copied from by adding
 * the columns to an `Object.create(null)` object and spreading that into a plain one; V8 copies a
 * dictionary-mode object property by property in its runtime, ~6 µs for the ticket read's 26 columns on an idle
 * core, 12 µs of the ~180 µs a ticket read cost under load (the same work upstream: brianc/node-postgres#3753).
 * This builds the same plain object directly: the same own properties in the same order, so rows, their shape
 * and their serialisation are unchanged.
 *
 * A column named `__proto__` stays an own property, as with pg's null-prototype object: it is defined, not
 * assigned (an assignment would set the prototype), and the row copies keep it as their own.
 */
export function buildRowShapesDirectly(Result: typeof pg.Result, types: typeof pg.types): void {
  const prototype = Result.prototype as unknown as { addFields(this: ResultInternals, fieldDescriptions: pg.FieldDef[]): void };
  prototype.addFields = function addFields(fieldDescriptions) {
    // Multiple statements in one query send one description each: every call starts over, as pg's does.
    this.fields = fieldDescriptions;
    if (fieldDescriptions.length) this._parsers = new Array(fieldDescriptions.length);
    const typeParsers = this._types ?? types;
    const row: Record<string, null> = {};
    for (let i = 0; i < fieldDescriptions.length; i++) {
      const desc = fieldDescriptions[i]!;
      if (desc.name === '__proto__') Object.defineProperty(row, '__proto__', { value: null, enumerable: true, writable: true, configurable: true });
      else row[desc.name] = null;
      this._parsers![i] = typeParsers.getTypeParser(desc.dataTypeID, (desc.format || 'text') as 'text');
    }
    this._prebuiltEmptyResultObject = row;
  };
}
