/**
 * The JSON reports the reprocessor answers with: a list, an audit page, what a replay or discard
 * did, what a retarget or dead-lettering of waiting rows did. Internal: it may change at any time,
 * in any release, without notice.
 */
package dev.lambdaoutbox.reprocessor.internal.report;
