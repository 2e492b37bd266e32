import GoshuinBackup
import GoshuinFormat
import GoshuinRecovery

extension GoshuinError.Code {
    /// Every code of the library, each module's own: the system module's, the container module's, the backup
    /// module's and the recovery module's (the tests that keep the specs' and the man page's lists whole).
    package static var allLibraryCodes: [Self] {
        systemModuleCodes + containerModuleCodes + backupModuleCodes + recoveryModuleCodes
    }
}
