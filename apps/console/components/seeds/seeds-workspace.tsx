'use client';

import { useState, type ReactNode } from 'react';
import { SeedForm } from './seed-form';
import { SeedLists, type SeedListsInitial } from './seed-lists';

/** The seeds page: the form, and the lists and seeds it adds to, read again after each add. */
export function SeedsWorkspace(props: { initial?: SeedListsInitial }): ReactNode {
  const [version, setVersion] = useState(0);
  return (
    <>
      <SeedForm onAdded={() => setVersion((v) => v + 1)} />
      <SeedLists version={version} initial={props.initial} />
    </>
  );
}
