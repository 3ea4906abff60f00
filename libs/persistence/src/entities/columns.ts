import {
  Column,
  CreateDateColumn,
  JoinColumn,
  ManyToOne,
  UpdateDateColumn,
  type ColumnOptions,
  type ObjectType,
  type RelationOptions,
} from 'typeorm';

/**
 * The kinds of column every table shares, declared once so each kind has one SQL type: the
 * schema the migrations build is what these produce (`npm run migration:drift` compares them).
 */

/** Timestamps are timestamptz everywhere: instants, never wall-clock times. */
export const INSTANT = 'timestamptz' as const;

/** A column's own settings (name, nullable, default): its kind fixes the SQL type. */
type ColumnSettings = Omit<ColumnOptions, 'type' | 'precision' | 'scale' | 'length'>;

/** An instant (timestamptz). */
export function InstantColumn(options: ColumnSettings = {}): PropertyDecorator {
  return Column({ ...options, type: INSTANT });
}

/** When the row was inserted, filled in by the database. */
export function CreatedAtColumn(options: Pick<ColumnOptions, 'default'> = {}): PropertyDecorator {
  return CreateDateColumn({ name: 'created_at', type: INSTANT, ...options });
}

/** When the row was last saved through TypeORM. */
export function UpdatedAtColumn(): PropertyDecorator {
  return UpdateDateColumn({ name: 'updated_at', type: INSTANT });
}

/** numeric(15,2) comes back from pg as a string; keep it a string so no float ever holds money. */
export function AmountColumn(options: ColumnSettings = {}): PropertyDecorator {
  return Column({ ...options, type: 'numeric', precision: 15, scale: 2 });
}

/** An ISO 4217 currency code, e.g. KES. */
export function CurrencyColumn(options: ColumnSettings = {}): PropertyDecorator {
  return Column({ ...options, type: 'varchar', length: 3 });
}

/** A JSON document (jsonb): a gateway record, a payload, details. */
export function JsonColumn(options: ColumnSettings = {}): PropertyDecorator {
  return Column({ ...options, type: 'jsonb' });
}

/**
 * The row this one belongs to: a many-to-one through `column`, its foreign key named `constraint`
 * as the migrations named it.
 */
export function BelongsTo<T>(
  target: () => ObjectType<T>,
  column: string,
  constraint: string,
  onDelete: RelationOptions['onDelete'],
): PropertyDecorator {
  const join = JoinColumn({ name: column, foreignKeyConstraintName: constraint });
  const relation = ManyToOne(target, { onDelete, createForeignKeyConstraints: true });
  return (object, property) => {
    join(object, property);
    relation(object, property);
  };
}
