// What every kind's module shares: the columns of a record and a record made from them, and
// the type of a wire form (what serve may send for a wire message).
import type * as z from 'zod';
import type { WireName } from '../../../api/registry/define.js';
import type * as Wire from '../../../api/schemas.js';
import type { Kind, KindData, Record_ } from '../../store/record.js';

export interface Base {
  /** Empty for a record whose uid is made when it is inserted below its parent. */
  uid?: string;
  createTime: string;
  updateTime?: string;
}

export function record<K extends Kind & keyof KindData>(kind: K, parent: string | null, name: string, altKey: string | null, b: Base, data: KindData[K]): Record_<K> {
  return { uid: b.uid ?? '', kind, parent, name, altKey, createTime: b.createTime, updateTime: b.updateTime ?? b.createTime, data } as Record_<K>;
}

/** What serve may send for a wire message (defaults may be left out, as zod's input allows). */
export type WireOut<W extends WireName> = z.input<(typeof Wire)[W]>;

/** A JSON value, as a field stored as given holds it. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export function isKind<K extends Kind>(rec: Record_, kind: K): rec is Record_<K> {
  return rec.kind === kind;
}

/** A kind's rendering, for the records of a list of that kind (the list engine lists one kind). */
export function forKind<K extends Kind, T>(kind: K, render: (r: Record_<K>) => T): (r: Record_) => T {
  return (r) => {
    if (!isKind(r, kind)) throw new Error(`a ${r.kind} record was handed to the ${kind} form`);
    return render(r);
  };
}
