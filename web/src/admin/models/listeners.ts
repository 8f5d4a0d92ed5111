/** The subscription every view-model offers its view: listeners called on each change of its state. */
export interface Listeners<T> {
  /** Adds a listener; returns its removal. */
  subscribe(listener: (change: T) => void): () => void;
  emit(change: T): void;
}

export function listeners<T = void>(): Listeners<T> {
  const set = new Set<(change: T) => void>();
  return {
    subscribe(listener) {
      set.add(listener);
      return () => set.delete(listener);
    },
    emit(change) {
      for (const listener of [...set]) listener(change);
    },
  };
}
