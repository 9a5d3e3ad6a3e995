//! FoundationDB's C option and enum codes of API version 730, under the
//! names bindgen gives them (`<enum type>_<constant>`), which the
//! `foundationdb` crate's generated options code spells out.
//!
//! The values are the ABI: they are what `fdb_c_options.g.h` of 7.3
//! declares, one constant per line of its enums.

use std::ffi::{c_int, c_uint};

/// `FDBNetworkOption`.
pub type FDBNetworkOption = c_uint;
pub const FDBNetworkOption_FDB_NET_OPTION_LOCAL_ADDRESS: FDBNetworkOption = 10;
pub const FDBNetworkOption_FDB_NET_OPTION_CLUSTER_FILE: FDBNetworkOption = 20;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_ENABLE: FDBNetworkOption = 30;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_ROLL_SIZE: FDBNetworkOption = 31;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_MAX_LOGS_SIZE: FDBNetworkOption = 32;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_LOG_GROUP: FDBNetworkOption = 33;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_FORMAT: FDBNetworkOption = 34;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_CLOCK_SOURCE: FDBNetworkOption = 35;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_FILE_IDENTIFIER: FDBNetworkOption = 36;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_SHARE_AMONG_CLIENT_THREADS: FDBNetworkOption = 37;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_INITIALIZE_ON_SETUP: FDBNetworkOption = 38;
pub const FDBNetworkOption_FDB_NET_OPTION_TRACE_PARTIAL_FILE_SUFFIX: FDBNetworkOption = 39;
pub const FDBNetworkOption_FDB_NET_OPTION_KNOB: FDBNetworkOption = 40;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_PLUGIN: FDBNetworkOption = 41;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_CERT_BYTES: FDBNetworkOption = 42;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_CERT_PATH: FDBNetworkOption = 43;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_KEY_BYTES: FDBNetworkOption = 45;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_KEY_PATH: FDBNetworkOption = 46;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_VERIFY_PEERS: FDBNetworkOption = 47;
pub const FDBNetworkOption_FDB_NET_OPTION_BUGGIFY_ENABLE: FDBNetworkOption = 48;
pub const FDBNetworkOption_FDB_NET_OPTION_BUGGIFY_DISABLE: FDBNetworkOption = 49;
pub const FDBNetworkOption_FDB_NET_OPTION_BUGGIFY_SECTION_ACTIVATED_PROBABILITY: FDBNetworkOption =
    50;
pub const FDBNetworkOption_FDB_NET_OPTION_BUGGIFY_SECTION_FIRED_PROBABILITY: FDBNetworkOption = 51;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_CA_BYTES: FDBNetworkOption = 52;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_CA_PATH: FDBNetworkOption = 53;
pub const FDBNetworkOption_FDB_NET_OPTION_TLS_PASSWORD: FDBNetworkOption = 54;
pub const FDBNetworkOption_FDB_NET_OPTION_DISABLE_MULTI_VERSION_CLIENT_API: FDBNetworkOption = 60;
pub const FDBNetworkOption_FDB_NET_OPTION_CALLBACKS_ON_EXTERNAL_THREADS: FDBNetworkOption = 61;
pub const FDBNetworkOption_FDB_NET_OPTION_EXTERNAL_CLIENT_LIBRARY: FDBNetworkOption = 62;
pub const FDBNetworkOption_FDB_NET_OPTION_EXTERNAL_CLIENT_DIRECTORY: FDBNetworkOption = 63;
pub const FDBNetworkOption_FDB_NET_OPTION_DISABLE_LOCAL_CLIENT: FDBNetworkOption = 64;
pub const FDBNetworkOption_FDB_NET_OPTION_CLIENT_THREADS_PER_VERSION: FDBNetworkOption = 65;
pub const FDBNetworkOption_FDB_NET_OPTION_FUTURE_VERSION_CLIENT_LIBRARY: FDBNetworkOption = 66;
pub const FDBNetworkOption_FDB_NET_OPTION_RETAIN_CLIENT_LIBRARY_COPIES: FDBNetworkOption = 67;
pub const FDBNetworkOption_FDB_NET_OPTION_IGNORE_EXTERNAL_CLIENT_FAILURES: FDBNetworkOption = 68;
pub const FDBNetworkOption_FDB_NET_OPTION_FAIL_INCOMPATIBLE_CLIENT: FDBNetworkOption = 69;
pub const FDBNetworkOption_FDB_NET_OPTION_DISABLE_CLIENT_STATISTICS_LOGGING: FDBNetworkOption = 70;
pub const FDBNetworkOption_FDB_NET_OPTION_ENABLE_SLOW_TASK_PROFILING: FDBNetworkOption = 71;
pub const FDBNetworkOption_FDB_NET_OPTION_ENABLE_RUN_LOOP_PROFILING: FDBNetworkOption = 71;
pub const FDBNetworkOption_FDB_NET_OPTION_DISABLE_CLIENT_BYPASS: FDBNetworkOption = 72;
pub const FDBNetworkOption_FDB_NET_OPTION_CLIENT_BUGGIFY_ENABLE: FDBNetworkOption = 80;
pub const FDBNetworkOption_FDB_NET_OPTION_CLIENT_BUGGIFY_DISABLE: FDBNetworkOption = 81;
pub const FDBNetworkOption_FDB_NET_OPTION_CLIENT_BUGGIFY_SECTION_ACTIVATED_PROBABILITY:
    FDBNetworkOption = 82;
pub const FDBNetworkOption_FDB_NET_OPTION_CLIENT_BUGGIFY_SECTION_FIRED_PROBABILITY:
    FDBNetworkOption = 83;
pub const FDBNetworkOption_FDB_NET_OPTION_DISTRIBUTED_CLIENT_TRACER: FDBNetworkOption = 90;
pub const FDBNetworkOption_FDB_NET_OPTION_CLIENT_TMP_DIR: FDBNetworkOption = 91;
pub const FDBNetworkOption_FDB_NET_OPTION_SUPPORTED_CLIENT_VERSIONS: FDBNetworkOption = 1000;
pub const FDBNetworkOption_FDB_NET_OPTION_EXTERNAL_CLIENT: FDBNetworkOption = 1001;
pub const FDBNetworkOption_FDB_NET_OPTION_EXTERNAL_CLIENT_TRANSPORT_ID: FDBNetworkOption = 1002;

/// `FDBDatabaseOption`.
pub type FDBDatabaseOption = c_uint;
pub const FDBDatabaseOption_FDB_DB_OPTION_LOCATION_CACHE_SIZE: FDBDatabaseOption = 10;
pub const FDBDatabaseOption_FDB_DB_OPTION_MAX_WATCHES: FDBDatabaseOption = 20;
pub const FDBDatabaseOption_FDB_DB_OPTION_MACHINE_ID: FDBDatabaseOption = 21;
pub const FDBDatabaseOption_FDB_DB_OPTION_DATACENTER_ID: FDBDatabaseOption = 22;
pub const FDBDatabaseOption_FDB_DB_OPTION_SNAPSHOT_RYW_ENABLE: FDBDatabaseOption = 26;
pub const FDBDatabaseOption_FDB_DB_OPTION_SNAPSHOT_RYW_DISABLE: FDBDatabaseOption = 27;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_LOGGING_MAX_FIELD_LENGTH: FDBDatabaseOption =
    405;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_TIMEOUT: FDBDatabaseOption = 500;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_RETRY_LIMIT: FDBDatabaseOption = 501;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_MAX_RETRY_DELAY: FDBDatabaseOption = 502;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_SIZE_LIMIT: FDBDatabaseOption = 503;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_CAUSAL_READ_RISKY: FDBDatabaseOption = 504;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_INCLUDE_PORT_IN_ADDRESS: FDBDatabaseOption =
    505;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_AUTOMATIC_IDEMPOTENCY: FDBDatabaseOption =
    506;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_BYPASS_UNREADABLE: FDBDatabaseOption = 700;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_USED_DURING_COMMIT_PROTECTION_DISABLE:
    FDBDatabaseOption = 701;
pub const FDBDatabaseOption_FDB_DB_OPTION_TRANSACTION_REPORT_CONFLICTING_KEYS: FDBDatabaseOption =
    702;
pub const FDBDatabaseOption_FDB_DB_OPTION_USE_CONFIG_DATABASE: FDBDatabaseOption = 800;
pub const FDBDatabaseOption_FDB_DB_OPTION_TEST_CAUSAL_READ_RISKY: FDBDatabaseOption = 900;

/// `FDBTransactionOption`.
pub type FDBTransactionOption = c_uint;
pub const FDBTransactionOption_FDB_TR_OPTION_CAUSAL_WRITE_RISKY: FDBTransactionOption = 10;
pub const FDBTransactionOption_FDB_TR_OPTION_CAUSAL_READ_RISKY: FDBTransactionOption = 20;
pub const FDBTransactionOption_FDB_TR_OPTION_CAUSAL_READ_DISABLE: FDBTransactionOption = 21;
pub const FDBTransactionOption_FDB_TR_OPTION_INCLUDE_PORT_IN_ADDRESS: FDBTransactionOption = 23;
pub const FDBTransactionOption_FDB_TR_OPTION_NEXT_WRITE_NO_WRITE_CONFLICT_RANGE:
    FDBTransactionOption = 30;
pub const FDBTransactionOption_FDB_TR_OPTION_COMMIT_ON_FIRST_PROXY: FDBTransactionOption = 40;
pub const FDBTransactionOption_FDB_TR_OPTION_CHECK_WRITES_ENABLE: FDBTransactionOption = 50;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_YOUR_WRITES_DISABLE: FDBTransactionOption = 51;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_AHEAD_DISABLE: FDBTransactionOption = 52;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_SERVER_SIDE_CACHE_ENABLE: FDBTransactionOption =
    507;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_SERVER_SIDE_CACHE_DISABLE: FDBTransactionOption =
    508;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_PRIORITY_NORMAL: FDBTransactionOption = 509;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_PRIORITY_LOW: FDBTransactionOption = 510;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_PRIORITY_HIGH: FDBTransactionOption = 511;
pub const FDBTransactionOption_FDB_TR_OPTION_DURABILITY_DATACENTER: FDBTransactionOption = 110;
pub const FDBTransactionOption_FDB_TR_OPTION_DURABILITY_RISKY: FDBTransactionOption = 120;
pub const FDBTransactionOption_FDB_TR_OPTION_DURABILITY_DEV_NULL_IS_WEB_SCALE:
    FDBTransactionOption = 130;
pub const FDBTransactionOption_FDB_TR_OPTION_PRIORITY_SYSTEM_IMMEDIATE: FDBTransactionOption = 200;
pub const FDBTransactionOption_FDB_TR_OPTION_PRIORITY_BATCH: FDBTransactionOption = 201;
pub const FDBTransactionOption_FDB_TR_OPTION_INITIALIZE_NEW_DATABASE: FDBTransactionOption = 300;
pub const FDBTransactionOption_FDB_TR_OPTION_ACCESS_SYSTEM_KEYS: FDBTransactionOption = 301;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_SYSTEM_KEYS: FDBTransactionOption = 302;
pub const FDBTransactionOption_FDB_TR_OPTION_RAW_ACCESS: FDBTransactionOption = 303;
pub const FDBTransactionOption_FDB_TR_OPTION_BYPASS_STORAGE_QUOTA: FDBTransactionOption = 304;
pub const FDBTransactionOption_FDB_TR_OPTION_DEBUG_DUMP: FDBTransactionOption = 400;
pub const FDBTransactionOption_FDB_TR_OPTION_DEBUG_RETRY_LOGGING: FDBTransactionOption = 401;
pub const FDBTransactionOption_FDB_TR_OPTION_TRANSACTION_LOGGING_ENABLE: FDBTransactionOption = 402;
pub const FDBTransactionOption_FDB_TR_OPTION_DEBUG_TRANSACTION_IDENTIFIER: FDBTransactionOption =
    403;
pub const FDBTransactionOption_FDB_TR_OPTION_LOG_TRANSACTION: FDBTransactionOption = 404;
pub const FDBTransactionOption_FDB_TR_OPTION_TRANSACTION_LOGGING_MAX_FIELD_LENGTH:
    FDBTransactionOption = 405;
pub const FDBTransactionOption_FDB_TR_OPTION_SERVER_REQUEST_TRACING: FDBTransactionOption = 406;
pub const FDBTransactionOption_FDB_TR_OPTION_TIMEOUT: FDBTransactionOption = 500;
pub const FDBTransactionOption_FDB_TR_OPTION_RETRY_LIMIT: FDBTransactionOption = 501;
pub const FDBTransactionOption_FDB_TR_OPTION_MAX_RETRY_DELAY: FDBTransactionOption = 502;
pub const FDBTransactionOption_FDB_TR_OPTION_SIZE_LIMIT: FDBTransactionOption = 503;
pub const FDBTransactionOption_FDB_TR_OPTION_IDEMPOTENCY_ID: FDBTransactionOption = 504;
pub const FDBTransactionOption_FDB_TR_OPTION_AUTOMATIC_IDEMPOTENCY: FDBTransactionOption = 505;
pub const FDBTransactionOption_FDB_TR_OPTION_SNAPSHOT_RYW_ENABLE: FDBTransactionOption = 600;
pub const FDBTransactionOption_FDB_TR_OPTION_SNAPSHOT_RYW_DISABLE: FDBTransactionOption = 601;
pub const FDBTransactionOption_FDB_TR_OPTION_LOCK_AWARE: FDBTransactionOption = 700;
pub const FDBTransactionOption_FDB_TR_OPTION_USED_DURING_COMMIT_PROTECTION_DISABLE:
    FDBTransactionOption = 701;
pub const FDBTransactionOption_FDB_TR_OPTION_READ_LOCK_AWARE: FDBTransactionOption = 702;
pub const FDBTransactionOption_FDB_TR_OPTION_FIRST_IN_BATCH: FDBTransactionOption = 710;
pub const FDBTransactionOption_FDB_TR_OPTION_USE_PROVISIONAL_PROXIES: FDBTransactionOption = 711;
pub const FDBTransactionOption_FDB_TR_OPTION_REPORT_CONFLICTING_KEYS: FDBTransactionOption = 712;
pub const FDBTransactionOption_FDB_TR_OPTION_SPECIAL_KEY_SPACE_RELAXED: FDBTransactionOption = 713;
pub const FDBTransactionOption_FDB_TR_OPTION_SPECIAL_KEY_SPACE_ENABLE_WRITES: FDBTransactionOption =
    714;
pub const FDBTransactionOption_FDB_TR_OPTION_TAG: FDBTransactionOption = 800;
pub const FDBTransactionOption_FDB_TR_OPTION_AUTO_THROTTLE_TAG: FDBTransactionOption = 801;
pub const FDBTransactionOption_FDB_TR_OPTION_SPAN_PARENT: FDBTransactionOption = 900;
pub const FDBTransactionOption_FDB_TR_OPTION_EXPENSIVE_CLEAR_COST_ESTIMATION_ENABLE:
    FDBTransactionOption = 1000;
pub const FDBTransactionOption_FDB_TR_OPTION_BYPASS_UNREADABLE: FDBTransactionOption = 1100;
pub const FDBTransactionOption_FDB_TR_OPTION_USE_GRV_CACHE: FDBTransactionOption = 1101;
pub const FDBTransactionOption_FDB_TR_OPTION_SKIP_GRV_CACHE: FDBTransactionOption = 1102;
pub const FDBTransactionOption_FDB_TR_OPTION_AUTHORIZATION_TOKEN: FDBTransactionOption = 2000;

/// `FDBStreamingMode`.
pub type FDBStreamingMode = c_int;
pub const FDBStreamingMode_FDB_STREAMING_MODE_WANT_ALL: FDBStreamingMode = -2;
pub const FDBStreamingMode_FDB_STREAMING_MODE_ITERATOR: FDBStreamingMode = -1;
pub const FDBStreamingMode_FDB_STREAMING_MODE_EXACT: FDBStreamingMode = 0;
pub const FDBStreamingMode_FDB_STREAMING_MODE_SMALL: FDBStreamingMode = 1;
pub const FDBStreamingMode_FDB_STREAMING_MODE_MEDIUM: FDBStreamingMode = 2;
pub const FDBStreamingMode_FDB_STREAMING_MODE_LARGE: FDBStreamingMode = 3;
pub const FDBStreamingMode_FDB_STREAMING_MODE_SERIAL: FDBStreamingMode = 4;

/// `FDBMutationType`.
pub type FDBMutationType = c_uint;
pub const FDBMutationType_FDB_MUTATION_TYPE_ADD: FDBMutationType = 2;
pub const FDBMutationType_FDB_MUTATION_TYPE_AND: FDBMutationType = 6;
pub const FDBMutationType_FDB_MUTATION_TYPE_BIT_AND: FDBMutationType = 6;
pub const FDBMutationType_FDB_MUTATION_TYPE_OR: FDBMutationType = 7;
pub const FDBMutationType_FDB_MUTATION_TYPE_BIT_OR: FDBMutationType = 7;
pub const FDBMutationType_FDB_MUTATION_TYPE_XOR: FDBMutationType = 8;
pub const FDBMutationType_FDB_MUTATION_TYPE_BIT_XOR: FDBMutationType = 8;
pub const FDBMutationType_FDB_MUTATION_TYPE_APPEND_IF_FITS: FDBMutationType = 9;
pub const FDBMutationType_FDB_MUTATION_TYPE_MAX: FDBMutationType = 12;
pub const FDBMutationType_FDB_MUTATION_TYPE_MIN: FDBMutationType = 13;
pub const FDBMutationType_FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_KEY: FDBMutationType = 14;
pub const FDBMutationType_FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_VALUE: FDBMutationType = 15;
pub const FDBMutationType_FDB_MUTATION_TYPE_BYTE_MIN: FDBMutationType = 16;
pub const FDBMutationType_FDB_MUTATION_TYPE_BYTE_MAX: FDBMutationType = 17;
pub const FDBMutationType_FDB_MUTATION_TYPE_COMPARE_AND_CLEAR: FDBMutationType = 20;

/// `FDBConflictRangeType`.
pub type FDBConflictRangeType = c_uint;
pub const FDBConflictRangeType_FDB_CONFLICT_RANGE_TYPE_READ: FDBConflictRangeType = 0;
pub const FDBConflictRangeType_FDB_CONFLICT_RANGE_TYPE_WRITE: FDBConflictRangeType = 1;

/// `FDBErrorPredicate`.
pub type FDBErrorPredicate = c_uint;
pub const FDBErrorPredicate_FDB_ERROR_PREDICATE_RETRYABLE: FDBErrorPredicate = 50000;
pub const FDBErrorPredicate_FDB_ERROR_PREDICATE_MAYBE_COMMITTED: FDBErrorPredicate = 50001;
pub const FDBErrorPredicate_FDB_ERROR_PREDICATE_RETRYABLE_NOT_COMMITTED: FDBErrorPredicate = 50002;
