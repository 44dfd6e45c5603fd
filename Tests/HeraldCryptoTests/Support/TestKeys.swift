/// Keys made with the `openssl` CLI for these tests only. They protect nothing; committing them is intended.
enum TestKeys {
    /// A P-256 key in PKCS#8, as in Apple's .p8 files:
    /// `openssl ecparam -name prime256v1 -genkey | openssl pkcs8 -topk8 -nocrypt`.
    static let p256PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJz9uNya26nts2R8Y
        0wlEcWaXlthfivK9wnoJW3X9mp+hRANCAASI/FihUkYmv1+ayrfQ2jt8+GTlNG1q
        d+O6fZafHWQqigSyDEjKx2uG/BnRXt1LDdNPHEDb0okFHMm7ffbE6xgz
        -----END PRIVATE KEY-----
        """

    /// The same P-256 key in SEC1 form (`BEGIN EC PRIVATE KEY`).
    static let p256SEC1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEICc/bjcmtup7bNkfGNMJRHFml5bYX4ryvcJ6CVt1/ZqfoAoGCCqGSM49
        AwEHoUQDQgAEiPxYoVJGJr9fmsq30No7fPhk5TRtanfjun2Wnx1kKooEsgxIysdr
        hvwZ0V7dSw3TTxxA29KJBRzJu332xOsYMw==
        -----END EC PRIVATE KEY-----
        """

    /// The public half of the P-256 key, as `openssl ec -pubout` writes it.
    static let p256Public = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEiPxYoVJGJr9fmsq30No7fPhk5TRt
        anfjun2Wnx1kKooEsgxIysdrhvwZ0V7dSw3TTxxA29KJBRzJu332xOsYMw==
        -----END PUBLIC KEY-----
        """

    /// The same P-256 key as encrypted PKCS#8 (password `secret`).
    static let p256Encrypted = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjHFXRGlvtonQICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEHPRxr6hWDJPkoA6j6xPzoAEgZCT
        Lkjrr567mxZWbeepImZvFaJIEYiLc9WhuQlbH8Q+k8d6aPn9aOn7zZbKmEeGwKot
        OUxL0l0k+34ir5k60UmhSxwoTP0hV+WQbGlleyTsv2X/eqJsZCtUxyF8Rr2qlcrY
        +UdIAVtN21mg22tRwLK2tfPHa3scm7ODJ208KgR0XqPOYIxJFOu25Hr3oUmgEJQ=
        -----END ENCRYPTED PRIVATE KEY-----
        """

    /// A secp384r1 key in PKCS#8: must be refused as unsupported.
    static let p384PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDCrbkPTZd1npm+dvt3y
        7hJK1GWpZa/pLQeKLdgvZQ1dJC793UM6PGRbWCnRFKQP77ehZANiAASCtJIIK7+b
        UDktfpbcEaoqerlB8LFyo87xUCLJo8ufDqyIAyF2DaK5pwBgcv34Vg3l2EoCN5Pt
        KGyxa8inTP69fQVAvylgUg86ua0DXKeVHQ0wGytkq0/Ts28VfG9Ot7c=
        -----END PRIVATE KEY-----
        """

    /// A 2048-bit RSA key in PKCS#8, as in a Google service-account JSON.
    static let rsaPKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCnR4gJohAsBk+6
        yXP27WzliCSLpE1Mcj7qC/yFwBzGOwUqc7DvH/Ssykk8aq1gwyPmFQ/6e5U8aVcB
        tuwzKY8sUI5SYBPHlvHYvcPjHjJM2glnN94iR0cQp+d8YJdLsPSBrASXs3V282Cw
        DdzSeB4Y4OxHnc+HtTa6kc9ScEbzW65jcnZbseqs1+UF4RmJzqTr40rjqs3QTUk1
        BC7PUuh3ayUiB85tfhzqdgI8jxUlm24wlFXuQLkc4heF0Zbl368EMF3rBPELVYT5
        azxLtTJfPbCMMFL6A6xvIFJeSwo517+tcGOgrA856NZwPWk5UqEpcJuOgRaxIRyw
        k9WSJdtBAgMBAAECggEAAI5WekBi0Qqk/t1xjbtkoRoD6RTpjtyoWeB3/T0nZf9H
        OUi7ff1Qs7b+aagpyF24WP5D7dS1qRw+hkpvMY0B+qc6jzUzi6Ee+lXzIzueoNkZ
        WTxQeDOyyEWOmZVmm1aiEWuayPhMkScmRfTd1t3rAlvTso8949kV2VE9Flc6MnqK
        UI5yppD94SMb7RTVXNZPgQSadyArwy5vyjJkCygFqNDtac5JvUWtWL7GHofvgsKC
        /iQNn8ggKDI6VCv6eCjmHZRPrPjvZjYSZ95qvnQlOuI04xEC2Q4saurOXIKbchDD
        M9G7d3AnqYkey6clz7diuyoLcy1EsTqjjWASlyDuGQKBgQDpxBmal2Yhxg9ApSws
        7Qt19r8GTYIYx5JOZqKq1H8nslur6lPLMLC4RdG7+eWz4QTnOUDvLxB42R817AyQ
        UjssMYdgu5N8X8iMhIgaj4XtEACZHZqPxtpFb4CdA1qilI+KzMhSsn5swjBQ90tY
        UH6pDYP2tkcqUDx5RhpvVtFEtQKBgQC3MJGc4FVyLR0u1Cjxs0eU0JV/3ILwKf1p
        tObQtG7mwzIRhmbJlNhrAI7jYVk4fle/lrVqd2cqiW4KdZCQHB8xXgIzf9CaTPrp
        P5+e2eQJiRglaNQmOyrOHVQq5XR43/5w6b5BTjT1rwPu65hmd8a2PRf+GJs6VlGa
        MYaQG2E/3QKBgQDdHh/16bWyxqzQwiwqBsLrf02rwY8Ir2YGAPFnU38/ZmduE0XV
        kiXm+Cvuee+8GWHQ8YgpdsRG+2GZWMF9ljrgj6z1ZBia8eM6f3ZaYV4WIiferXDx
        BPCb81+dpXmLBalNam0mRC5v47NeMryzOdjFQcKMkFh6ftDlCdmhbWafbQKBgEMz
        1BdCzNXH6w7E0ghpBnd3VYDEelx0avyeWpZxusV5EiMPtSF6MzJ9z+1mRv7MipBE
        T2UxTG10YSQBIPlc96x6mkAeQX55gwqSRpJVyKwe2PbQUBN+XSOj6r6Z0nKNaaAu
        f5chg5gljkHVt+DPS9yK6QRULo3mIKV6Sa0P/ksZAoGAVzXs4B0Y4blBdc/N37Sx
        n+elbPNO2uETcb5/5HUmTS7Q49EtqpXIEaKjR9K1Be6unzK1ZHbFPGaeXv1ma7bW
        7n6N/N8dGaHNJ8FL/cMWs7r6WPRVkKVHOgqkgY2xBkfYAx64WGkJqx4vt9UzWyiS
        TrehlnM4SWtMtEAwPtWefUo=
        -----END PRIVATE KEY-----
        """

    /// The same RSA key in PKCS#1 form (`BEGIN RSA PRIVATE KEY`).
    static let rsaPKCS1 = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAp0eICaIQLAZPuslz9u1s5Ygki6RNTHI+6gv8hcAcxjsFKnOw
        7x/0rMpJPGqtYMMj5hUP+nuVPGlXAbbsMymPLFCOUmATx5bx2L3D4x4yTNoJZzfe
        IkdHEKfnfGCXS7D0gawEl7N1dvNgsA3c0ngeGODsR53Ph7U2upHPUnBG81uuY3J2
        W7HqrNflBeEZic6k6+NK46rN0E1JNQQuz1Lod2slIgfObX4c6nYCPI8VJZtuMJRV
        7kC5HOIXhdGW5d+vBDBd6wTxC1WE+Ws8S7UyXz2wjDBS+gOsbyBSXksKOde/rXBj
        oKwPOejWcD1pOVKhKXCbjoEWsSEcsJPVkiXbQQIDAQABAoIBAACOVnpAYtEKpP7d
        cY27ZKEaA+kU6Y7cqFngd/09J2X/RzlIu339ULO2/mmoKchduFj+Q+3UtakcPoZK
        bzGNAfqnOo81M4uhHvpV8yM7nqDZGVk8UHgzsshFjpmVZptWohFrmsj4TJEnJkX0
        3dbd6wJb07KPPePZFdlRPRZXOjJ6ilCOcqaQ/eEjG+0U1VzWT4EEmncgK8Mub8oy
        ZAsoBajQ7WnOSb1FrVi+xh6H74LCgv4kDZ/IICgyOlQr+ngo5h2UT6z472Y2Emfe
        ar50JTriNOMRAtkOLGrqzlyCm3IQwzPRu3dwJ6mJHsunJc+3YrsqC3MtRLE6o41g
        Epcg7hkCgYEA6cQZmpdmIcYPQKUsLO0Ldfa/Bk2CGMeSTmaiqtR/J7Jbq+pTyzCw
        uEXRu/nls+EE5zlA7y8QeNkfNewMkFI7LDGHYLuTfF/IjISIGo+F7RAAmR2aj8ba
        RW+AnQNaopSPiszIUrJ+bMIwUPdLWFB+qQ2D9rZHKlA8eUYab1bRRLUCgYEAtzCR
        nOBVci0dLtQo8bNHlNCVf9yC8Cn9abTm0LRu5sMyEYZmyZTYawCO42FZOH5Xv5a1
        andnKoluCnWQkBwfMV4CM3/Qmkz66T+fntnkCYkYJWjUJjsqzh1UKuV0eN/+cOm+
        QU409a8D7uuYZnfGtj0X/hibOlZRmjGGkBthP90CgYEA3R4f9em1ssas0MIsKgbC
        639Nq8GPCK9mBgDxZ1N/P2ZnbhNF1ZIl5vgr7nnvvBlh0PGIKXbERvthmVjBfZY6
        4I+s9WQYmvHjOn92WmFeFiIn3q1w8QTwm/NfnaV5iwWpTWptJkQub+OzXjK8sznY
        xUHCjJBYen7Q5QnZoW1mn20CgYBDM9QXQszVx+sOxNIIaQZ3d1WAxHpcdGr8nlqW
        cbrFeRIjD7UhejMyfc/tZkb+zIqQRE9lMUxtdGEkASD5XPeseppAHkF+eYMKkkaS
        VcisHtj20FATfl0jo+q+mdJyjWmgLn+XIYOYJY5B1bfgz0vciukEVC6N5iClekmt
        D/5LGQKBgFc17OAdGOG5QXXPzd+0sZ/npWzzTtrhE3G+f+R1Jk0u0OPRLaqVyBGi
        o0fStQXurp8ytWR2xTxmnl79Zmu21u5+jfzfHRmhzSfBS/3DFrO6+lj0VZClRzoK
        pIGNsQZH2AMeuFhpCaseL7fVM1sokk63oZZzOElrTLRAMD7Vnn1K
        -----END RSA PRIVATE KEY-----
        """

    /// The public half of the RSA key, as `openssl rsa -pubout` writes it.
    static let rsaPublic = """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAp0eICaIQLAZPuslz9u1s
        5Ygki6RNTHI+6gv8hcAcxjsFKnOw7x/0rMpJPGqtYMMj5hUP+nuVPGlXAbbsMymP
        LFCOUmATx5bx2L3D4x4yTNoJZzfeIkdHEKfnfGCXS7D0gawEl7N1dvNgsA3c0nge
        GODsR53Ph7U2upHPUnBG81uuY3J2W7HqrNflBeEZic6k6+NK46rN0E1JNQQuz1Lo
        d2slIgfObX4c6nYCPI8VJZtuMJRV7kC5HOIXhdGW5d+vBDBd6wTxC1WE+Ws8S7Uy
        Xz2wjDBS+gOsbyBSXksKOde/rXBjoKwPOejWcD1pOVKhKXCbjoEWsSEcsJPVkiXb
        QQIDAQAB
        -----END PUBLIC KEY-----
        """

    /// A 1024-bit RSA key: too short, must be refused.
    static let rsa1024 = """
        -----BEGIN PRIVATE KEY-----
        MIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBAMRQKPaIeJlIUDW4
        kUIfMkEBccSVNUfWv4R7iufL/ySYZI3KllMumWHY1KWSOZLhG4AW6VY1aWOsIKp/
        1YNEpvGOyCT8JBU1UGTPI7HwvHNO0//vtcTPKORofA1XYsRCYf0Znq0icLPuWOaM
        Vns75MvwElFSN79Saj6i5rMTP1YlAgMBAAECgYEAj8IDvUWCyvzhf/WAqeMecewU
        29hIBCuGZAX0WnpQhQPz3sGUA6YEPFsEnZrO/nhKIyqkBLVoT80kvraOLGqBtOpA
        DsUIVP1LP/n5QKRzSlogQk5WXD1KEo30qfmWrv2LANgwKH3mjLuHOoJ+IyL/2sS2
        HJ7ut9atDOO7yI7ZlAECQQDo5AwTMrTp6pKx5rJxZV4SUAnLYxemDuVOiyCMOypg
        JQn2NWnbxoblxZKSWRgsVb0fF6MZjm0RoyFamwujMqlFAkEA18r0/n94E5RDrxc3
        wPOS95VZR9LwpqgkyDmZSlGsoz2vDn7lEAwkD5h1mCKnYBxnxEzn464beUtiUwu0
        sfgXYQJAXOwo2TwhLTgYIf1/c3lTqJDg55L5K5vD6KvgZ7Nvu/7rU56KR1OWHXXQ
        fq4n1AC9vfsra5YFdMUXGNTGNu6O1QJAK7k84OA1FUqCWFTNADSaP74sI+hyyGHj
        agp5q9xWrZDPCpHdmd3L5LkQgq3q2geHYvfuOGzLtkz29Dq39yN8oQJBANkzIpsw
        i5bfOWSya1BWPwwQrECkDiHS2qjKZh8gi2zD8RtXjC7wpHdAW+fkJYBDI8kexSr9
        gj7Ubkd0oVRbAW4=
        -----END PRIVATE KEY-----
        """

    /// An Ed25519 key: neither EC P-256 nor RSA.
    static let ed25519 = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIP4d2sAyqIYeElrXLd6X19l89I4G0YYW/fTjmo5lbFsc
        -----END PRIVATE KEY-----
        """
}
