/**
 * How the stores run SQL, whatever carries it: a JDBC connection or the RDS Data API. An {@link
 * dev.lambdaoutbox.store.sql.SqlExecutor} runs work in one transaction; the work runs statements on
 * a {@link dev.lambdaoutbox.store.sql.SqlSession}.
 *
 * <p>Statements are written for the narrowest carrier, the Data API: parameters are named ({@code
 * :name}) and typed ({@link dev.lambdaoutbox.store.sql.Params}); there are no array parameters (a
 * list travels as JSON text, expanded in SQL, or as a generated list of parameters); one statement
 * per call; rows are read by column name ({@link dev.lambdaoutbox.store.sql.Row}).
 */
package dev.lambdaoutbox.store.sql;
